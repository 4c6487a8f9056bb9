//! A recorded request taken apart: its positions in cache order (tools,
//! system blocks, message blocks, as [`crate::request::Request`] makes
//! them) with their tokens, and the request as a snapshot, so the diff
//! engine compares two requests as it compares two assemblies.

use crate::usage::Tokens;

use serde::Serialize;
use serde_json::Value;

use super::Exchange;
use crate::assembly::models::ModelTable;
use crate::request::Position;

/// A recorded request as a snapshot, so the diff engine compares two
/// requests as it compares two assemblies: each system block and message
/// block is a block and a fragment (named by its position: `system block
/// 2`, `message 3 (user) block 1`), in cache order, breakpoints where the
/// request put `cache_control`; tools are the tools.
pub fn request_snapshot(
    x: &Exchange,
    index: usize,
    counter: &crate::TokenCounter,
    table: &ModelTable,
) -> Result<crate::compare::snapshot::Snapshot, crate::error::Error> {
    let req = x
        .request
        .as_ref()
        .ok_or(crate::error::Error::NoBody { number: index })?;
    let model = table.resolve(Some(&x.model));
    let enc = model.tokenizer;
    let positions = req.positions();
    let (counts, by_server) = position_tokens(x, &positions, counter, enc);
    let tools: Vec<Value> = req.tools.iter().map(|t| t.definition.clone()).collect();
    let tools_tokens = counts[..tools.len()].iter().sum();
    // A breakpoint on the tool definitions caches them (the last one's,
    // as the agents place it).
    let settings = crate::workspace::settings::Settings {
        cache_tools: positions[..tools.len()].iter().any(|p| p.breakpoint),
        ..Default::default()
    };
    let mut blocks = Vec::new();
    let mut fragments = Vec::new();
    for (
        Position {
            label,
            text,
            breakpoint,
        },
        tokens,
    ) in positions
        .into_iter()
        .zip(counts.iter().copied())
        .skip(tools.len())
    {
        let (block, fragment) = position_parts(label, &text, breakpoint, tokens, index);
        blocks.push(block);
        fragments.push(fragment);
    }
    let mut total_tokens: Tokens = tools_tokens + blocks.iter().map(|b| b.tokens).sum::<Tokens>();
    // Counted by the server: its chat template's share too, as the parts.
    if by_server.is_some()
        && let Some(u) = x.usage
    {
        let reported = u.input().total();
        total_tokens = total_tokens.max(reported);
    }
    Ok(crate::compare::snapshot::Snapshot {
        schema: crate::compare::snapshot::SCHEMA,
        created_unix: x.at.map_or(0, |t| t as u64),
        workspace: String::new(),
        session: format!("request #{index} ({})", x.chain),
        model: x.model.clone(),
        tokenizer: by_server.map_or_else(|| enc.as_str().to_string(), str::to_string),
        settings,
        files: Default::default(),
        fragments,
        layers: Vec::new(),
        blocks,
        tools,
        tools_tokens,
        total_tokens,
        first_message_tokens: 0,
        report: Value::Null,
        prediction: Value::Null,
        runs: Vec::new(),
        agent: None,
        resume_reminder: None,
        recorded: true,
    })
}

/// One position of a recorded request as a snapshot's block and its one
/// fragment (a system block in layer 1, a message in layer 4), whole.
fn position_parts(
    label: String,
    text: &str,
    breakpoint: bool,
    tokens: Tokens,
    index: usize,
) -> (
    crate::assembly::assemble::BlockResult,
    crate::assembly::assemble::FragmentResult,
) {
    use crate::Status;
    use crate::assembly::assemble::{BlockResult, FragmentResult, Span};
    use crate::workspace::settings::Ttl;
    let layer = if label.starts_with("system") { 1 } else { 4 };
    let block = BlockResult {
        layer,
        tokens,
        cache_control: breakpoint,
        ttl: Ttl::FiveMinutes,
        spans: vec![Span {
            id: label.clone(),
            start: 0,
            end: text.len(),
        }],
        text: text.to_string(),
        label: Some(label.clone()),
        placement: Default::default(),
    };
    let fragment = FragmentResult {
        id: label,
        layer,
        priority: 0,
        source: format!("request #{index}"),
        line: 0,
        tokens,
        kept_tokens: tokens,
        status: Status::Kept,
        reason: String::new(),
        text: text.into(),
        chars: None,
        agent_words: None,
        heading_tokens: 0,
        builtin: None,
    };
    (block, fragment)
}

/// Request `index` (1-based) of a capture's exchanges, as a snapshot.
pub fn snapshot_at(
    exchanges: &[Exchange],
    index: usize,
    counter: &crate::TokenCounter,
    table: &ModelTable,
) -> Result<crate::compare::snapshot::Snapshot, crate::error::Error> {
    let x = index.checked_sub(1).and_then(|i| exchanges.get(i)).ok_or(
        crate::error::Error::NoRequest {
            number: index,
            recorded: exchanges.len(),
        },
    )?;
    request_snapshot(x, index, counter, table)
}

/// One part of a recorded request in cache order, with its tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Part {
    /// `tool 1 (read)`, `system block 2`, `message 3 (user)`…, or
    /// [`TEMPLATE`] for what the server's chat template added.
    pub label: String,
    pub tokens: Tokens,
    /// Carries a `cache_control` breakpoint.
    pub breakpoint: bool,
}

/// The label of the part a server's chat template adds around the others
/// (role markers, tool formatting), when the server counted the parts.
pub const TEMPLATE: &str = "chat template (the server's formatting)";

/// A request's parts as the server that answered counted them: the proxy
/// asks a llama.cpp upstream's own tokenizer for each position's tokens and
/// records them with the exchange.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counted {
    /// Who counted: `llama.cpp server at http://127.0.0.1:8089`.
    pub by: String,
    /// One count per position, in [`crate::request::Request::positions`] order.
    pub parts: Vec<Tokens>,
}

/// Positions read at most from a recorded `counted` list.
const MAX_COUNTED: usize = 100_000;

impl Counted {
    pub fn from_json(v: &Value) -> Option<Counted> {
        let parts = v["parts"].as_array()?;
        Some(Counted {
            by: crate::clean(v["by"].as_str()?, 200),
            parts: parts
                .iter()
                .take(MAX_COUNTED)
                .map(|n| n.as_u64().map(|n| n.min(crate::traffic::MAX_TOKENS)))
                .collect::<Option<Vec<_>>>()?,
        })
    }
}

/// The tokens of each position: the server's own counts when the exchange
/// recorded them for exactly these positions, else the model's tokenizer.
/// The second value names the server when it counted.
fn position_tokens<'a>(
    x: &'a Exchange,
    positions: &[Position<'_>],
    counter: &crate::TokenCounter,
    enc: crate::Encoding,
) -> (Vec<Tokens>, Option<&'a str>) {
    match &x.counted {
        Some(c) if c.parts.len() == positions.len() => (c.parts.clone(), Some(c.by.as_str())),
        _ => (
            positions
                .iter()
                .map(|p| counter.count(enc, &p.text))
                .collect(),
            None,
        ),
    }
}

/// A recorded request's parts and who counted them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Parts {
    pub parts: Vec<Part>,
    /// `the llama.cpp server at …` or `o200k_base (an estimate for …)`.
    pub counted_by: String,
    /// The prompt tokens the provider reported (input, written and read).
    pub reported: Option<u64>,
    /// The server counted the parts itself.
    pub by_server: bool,
}

impl Parts {
    /// The sum of the parts' tokens.
    pub fn sum(&self) -> u64 {
        self.parts.iter().map(|p| p.tokens).sum()
    }

    /// What the provider reported beyond the parts' sum (its tokenizer
    /// counting more than ours, or text the body does not show): a part
    /// of its own in every view, not a grey line. None when they agree or
    /// the server counted the parts itself.
    pub fn unaccounted(&self) -> Option<(String, i64)> {
        let r = self.reported? as i64;
        let d = r - self.sum() as i64;
        (d != 0 && !self.by_server).then(|| {
            let what = if d > 0 {
                "not in the parts: what the provider counted beyond our count"
            } else {
                "counted in the parts beyond what the provider reported"
            };
            (what.to_string(), d)
        })
    }

    /// One line for every view: the parts' sum, who counted, and how that
    /// compares with what the provider reported.
    pub fn summary(&self) -> String {
        let sum = self.sum();
        let th = crate::thousands;
        let compared = match self.reported {
            Some(r) if r == sum => " · the same as the provider reported".to_string(),
            Some(r) if self.by_server && r < sum => format!(
                " · the server reported {}: its chat template left {} of these tokens out (tools it does not render, for one)",
                th(r),
                th(sum - r)
            ),
            Some(r) => format!(" · the provider reported {}", th(r)),
            None => String::new(),
        };
        format!(
            "parts: {} tokens, counted by {}{compared}",
            th(sum),
            self.counted_by
        )
    }
}

/// The parts of a recorded request (tools, system blocks, messages) with
/// their tokens: counted by the server that answered when the capture has
/// its counts (then a last part holds what its chat template added, so the
/// parts sum to the prompt tokens it reported), else with the model's
/// tokenizer (an estimate for models whose tokenizer is not public).
pub fn parts(x: &Exchange, counter: &crate::TokenCounter, table: &ModelTable) -> Parts {
    let Some(req) = &x.request else {
        return Parts::default();
    };
    let model = table.resolve(Some(&x.model));
    let enc = model.tokenizer;
    // One position at a time: its text is counted and dropped.
    let mut parts: Vec<Part> = req
        .each_position()
        .map(|p| Part {
            tokens: if x.counted.is_some() {
                0
            } else {
                counter.count(enc, &p.text)
            },
            label: p.label,
            breakpoint: p.breakpoint,
        })
        .collect();
    // The server's counts, when they are for exactly these positions.
    let by_server = match &x.counted {
        Some(c) if c.parts.len() == parts.len() => {
            for (p, n) in parts.iter_mut().zip(&c.parts) {
                p.tokens = *n;
            }
            Some(c.by.as_str())
        }
        Some(_) => {
            for (p, q) in parts.iter_mut().zip(req.each_position()) {
                p.tokens = counter.count(enc, &q.text);
            }
            None
        }
        None => None,
    };
    let reported = x.usage.map(|u| u.input().total());
    let counted_by = match by_server {
        Some(by) => {
            let sum: Tokens = parts.iter().map(|p| p.tokens).sum();
            if let Some(extra) = reported.and_then(|p| p.checked_sub(sum)) {
                parts.push(Part {
                    label: TEMPLATE.into(),
                    tokens: extra,
                    breakpoint: false,
                });
            }
            format!("the {by} (its own tokenizer)")
        }
        None if table.get(&x.model).is_none() => format!(
            "{} (an estimate: {} is not in the model table)",
            model.tokenizer.as_str(),
            x.model
        ),
        None if !model.estimate => model.tokenizer.as_str().to_string(),
        None => format!(
            "{} (an estimate: {}'s tokenizer is not public)",
            model.tokenizer.as_str(),
            model.id
        ),
    };
    Parts {
        parts,
        counted_by,
        reported,
        by_server: by_server.is_some(),
    }
}
