//! A recorded request taken apart: its positions in cache order (tools,
//! system blocks, message blocks) with their tokens, and the request as a
//! snapshot, so the diff engine compares two requests as it compares two
//! assemblies.

use crate::usage::Tokens;
use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::Exchange;
use crate::assembly::models::ModelTable;
use crate::clean;

/// A position of a request: its label, its text (borrowed from the request
/// where it is one of its strings) and whether it carries a breakpoint.
pub type Position<'a> = (String, Cow<'a, str>, bool);

/// Positions of a request in cache order: tools, then system blocks, then
/// message content blocks; each with a label, its text and whether it
/// carries a breakpoint.
pub fn positions(req: &Value) -> Vec<Position<'_>> {
    each_position(req).collect()
}

fn breakpoint(v: &Value) -> bool {
    field(v, "cache_control").is_some()
}

/// `v.get(key)`, found in an object of a few keys (a message, a block) by
/// comparing them rather than hashing `key`: what taking a request apart
/// mostly costs is finding these fields.
fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(o) if o.len() <= 8 => o.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
        _ => v.get(key),
    }
}

/// `v[key]` as [`field`] finds it (null when it is not there).
fn at<'a>(v: &'a Value, key: &str) -> &'a Value {
    const NULL: &Value = &Value::Null;
    field(v, key).unwrap_or(NULL)
}

/// A block's JSON without its breakpoint.
fn stripped(v: &Value) -> String {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("cache_control");
    }
    v.to_string()
}

fn text_of(c: &Value) -> Cow<'_, str> {
    at(c, "text")
        .as_str()
        .map_or_else(|| Cow::Owned(stripped(c)), Cow::Borrowed)
}

type Positions<'a> = Box<dyn Iterator<Item = Position<'a>> + 'a>;

/// A tool definition's name: Anthropic's `name`, OpenAI's `function.name`,
/// a built-in tool's `type` (`web_search`).
fn tool_name(t: &Value) -> &str {
    t["name"]
        .as_str()
        .or_else(|| t.pointer("/function/name").and_then(Value::as_str))
        .or_else(|| t["type"].as_str())
        .unwrap_or("?")
}

/// The tools a Responses request defines in its input (Codex sends them as
/// an `additional_tools` item, not in `tools`).
fn input_tools(req: &Value) -> impl Iterator<Item = &Value> {
    req["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["type"] == "additional_tools")
        .flat_map(|m| m["tools"].as_array().into_iter().flatten())
}

/// What an input item without content says (the request model's rule).
use crate::request::openai::item_text;

/// [`positions`] one at a time, so that a request of many positions is
/// taken apart without holding all their texts.
pub fn each_position(req: &Value) -> Positions<'_> {
    // Gemini's shape (tool groups, `systemInstruction`, `contents` of
    // parts) is read through the request model.
    if req.get("messages").is_none()
        && req.get("input").is_none()
        && (req.get("contents").is_some() || req.get("systemInstruction").is_some())
        && let Ok(r) = crate::request::gemini::read(req)
    {
        let owned: Vec<Position<'static>> = r
            .positions()
            .into_iter()
            .map(|p| (p.label, Cow::Owned(p.text.into_owned()), p.breakpoint))
            .collect();
        return Box::new(owned.into_iter());
    }
    let tools = req["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| {
            (
                format!("tool {} ({})", i + 1, clean(tool_name(t), 64)),
                Cow::Owned(stripped(t)),
                breakpoint(t),
            )
        });
    let system: Positions = match (&req["system"], &req["instructions"]) {
        (Value::String(s), _) | (Value::Null, Value::String(s)) => Box::new(std::iter::once((
            "system block 1".into(),
            Cow::Borrowed(s.as_str()),
            false,
        ))),
        (Value::Array(blocks), _) => Box::new(
            blocks
                .iter()
                .enumerate()
                .map(|(i, b)| (format!("system block {}", i + 1), text_of(b), breakpoint(b))),
        ),
        _ => Box::new(std::iter::empty()),
    };
    // Chat messages, or the items of an OpenAI Responses `input` (a
    // string is one user message).
    let messages: Positions = match &req["input"] {
        Value::String(s) => Box::new(std::iter::once((
            "message 1 (user)".into(),
            Cow::Borrowed(s.as_str()),
            false,
        ))),
        Value::Array(items) if req.get("messages").is_none() => {
            let before = req["tools"].as_array().map_or(0, Vec::len);
            input_positions(items, before)
        }
        _ => message_positions(req["messages"].as_array().map_or(&[], Vec::as_slice)),
    };
    Box::new(tools.chain(system).chain(messages))
}

/// The items of a Responses `input`: an `additional_tools` item is tools
/// (numbered after the request's own `before`), the others messages.
fn input_positions(items: &[Value], before: usize) -> Positions<'_> {
    let mut n = before;
    Box::new(
        items
            .iter()
            .enumerate()
            .flat_map(move |(i, m)| -> Positions<'_> {
                if m["type"] == "additional_tools" {
                    let first = n;
                    let tools = m["tools"].as_array().map_or(&[][..], Vec::as_slice);
                    n += tools.len();
                    return Box::new(tools.iter().enumerate().map(move |(j, t)| {
                        (
                            format!(
                                "tool {} ({}, additional_tools)",
                                first + j + 1,
                                clean(tool_name(t), 64)
                            ),
                            Cow::Owned(stripped(t)),
                            breakpoint(t),
                        )
                    }));
                }
                message_positions_at(std::slice::from_ref(m), i)
            }),
    )
}

fn message_positions(messages: &[Value]) -> Positions<'_> {
    message_positions_at(messages, 0)
}

/// [`message_positions`] of `messages`, the first numbered `offset + 1`.
fn message_positions_at<'a>(messages: &'a [Value], offset: usize) -> Positions<'a> {
    Box::new(messages.iter().enumerate().flat_map(move |(i, m)| {
        let i = i + offset;
        let role = clean(
            at(m, "role")
                .as_str()
                .or_else(|| at(m, "type").as_str())
                .unwrap_or("?"),
            24,
        );
        let one = |text: Cow<'a, str>, bp: bool| -> Positions<'a> {
            Box::new(std::iter::once((
                format!("message {} ({role})", i + 1),
                text,
                bp,
            )))
        };
        match at(m, "content") {
            Value::String(s) => one(Cow::Borrowed(s.as_str()), false),
            // One block is named as the message (moving `cache_control`
            // onto it does not rename it); several are numbered.
            Value::Array(parts) if parts.len() == 1 => {
                one(text_of(&parts[0]), breakpoint(&parts[0]))
            }
            Value::Array(parts) => Box::new(parts.iter().enumerate().map(move |(j, c)| {
                (
                    format!("message {} ({role}) block {}", i + 1, j + 1),
                    text_of(c),
                    breakpoint(c),
                )
            })),
            // A Responses item without content (a function call, its output).
            Value::Null if m.is_object() => one(Cow::Owned(item_text(m)), false),
            _ => Box::new(std::iter::empty()),
        }
    }))
}

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
    use crate::Status;
    use crate::assembly::assemble::{BlockResult, FragmentResult, Span};
    use crate::workspace::settings::Ttl;
    let req = x
        .request
        .as_ref()
        .ok_or(crate::error::Error::NoBody { number: index })?;
    let model = table.resolve(Some(&x.model));
    let enc = model.tokenizer;
    let positions = positions(req);
    let (counts, by_server) = position_tokens(x, &positions, counter, enc);
    let tools: Vec<Value> = req["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let mut t = t.clone();
            if let Some(o) = t.as_object_mut() {
                o.remove("cache_control");
            }
            t
        })
        .collect();
    let tools_tokens = counts[..tools.len()].iter().sum();
    let mut blocks = Vec::new();
    let mut fragments = Vec::new();
    for ((label, text, breakpoint), tokens) in positions
        .into_iter()
        .zip(counts.iter().copied())
        .skip(tools.len())
    {
        let layer = if label.starts_with("system") { 1 } else { 4 };
        blocks.push(BlockResult {
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
        });
        fragments.push(FragmentResult {
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
            builtin: None,
        });
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
        settings: Default::default(),
        files: Default::default(),
        fragments,
        layers: Vec::new(),
        blocks,
        tools,
        tools_tokens,
        total_tokens,
        report: Value::Null,
        prediction: Value::Null,
        runs: Vec::new(),
        agent: None,
        resume_reminder: None,
        recorded: true,
    })
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
    /// One count per position, in [`positions`] order.
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
                .map(|(_, text, _)| counter.count(enc, text))
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
    let mut parts: Vec<Part> = each_position(req)
        .map(|(label, text, breakpoint)| Part {
            label,
            tokens: if x.counted.is_some() {
                0
            } else {
                counter.count(enc, &text)
            },
            breakpoint,
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
            for (p, (_, text, _)) in parts.iter_mut().zip(each_position(req)) {
                p.tokens = counter.count(enc, &text);
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

pub(super) fn names(req: &Value) -> Vec<String> {
    req["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(input_tools(req))
        .filter_map(|t| {
            t["name"]
                .as_str()
                .or_else(|| t.pointer("/function/name").and_then(Value::as_str))
                .map(|n| clean(n, 64))
        })
        .collect()
}
