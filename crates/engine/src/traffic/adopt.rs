//! Adopting a captured conversation as a session: the conversation picked
//! from a chain, its turns (with tool uses and the gaps between them).

use serde_json::Value;

use super::{Exchange, chain_phrase};
use crate::request::{Block, BlockKind, Message, Request, Role};

/// Requests of a capture with their 0-based indices.
type Indexed<'a> = Vec<(usize, &'a Exchange)>;

/// A captured conversation as a session (turns, tool uses, gaps), so that
/// prediction, test runs and diff apply to real traffic. Built from one
/// chain (`main` unless named): the longest of its conversations, whose
/// last request's messages are the conversation; the time between the
/// requests that start a turn gives the gaps.
pub fn to_session(
    exchanges: &[Exchange],
    name: &str,
    wanted: &str,
) -> Result<Value, crate::error::Error> {
    let cannot = |why: String| crate::error::Error::option("--to-session", why);
    let (picked, conversations) = conversation(exchanges, wanted)?;
    let span = span_of(&picked);
    let others = conversations.saturating_sub(1);
    let chain: Vec<&Exchange> = picked.iter().map(|(_, x)| *x).collect();
    let last = chain
        .last()
        .and_then(|x| x.request.as_ref())
        .ok_or_else(|| {
            cannot(
                "no request bodies in the main chain: only a capture can become a session".into(),
            )
        })?;
    let turns = turns_of(&chain, last);
    if turns.is_empty() {
        return Err(cannot(format!(
            "no user turns in the main chain's conversation ({span}): only chat messages (Anthropic Messages, OpenAI Chat Completions) can become a session"
        )));
    }
    let tools: Vec<&str> = last.tools.iter().map(|t| t.name.as_str()).collect();
    Ok(serde_json::json!({
        "name": name,
        "description": format!(
            "adopted from real traffic ({span}{})",
            if others > 0 {
                format!(
                    ", the longest of {} conversations in {}",
                    others + 1,
                    chain_phrase(wanted)
                )
            } else {
                String::new()
            }
        ),
        "model": last.model,
        "tools": tools,
        "turns": turns,
    }))
}

/// The requests (with their indices) of the longest conversation of chain
/// `wanted`, and how many conversations the chain holds.
fn conversation<'a>(
    exchanges: &'a [Exchange],
    wanted: &str,
) -> Result<(Indexed<'a>, usize), crate::error::Error> {
    let cannot = |why: String| crate::error::Error::option("--to-session", why);
    let main: Vec<(usize, &Exchange)> = exchanges
        .iter()
        .enumerate()
        .filter(|(_, x)| x.chain == wanted && x.request.is_some())
        .collect();
    if main.is_empty() {
        let mut chains: Vec<&str> = Vec::new();
        let mut listed = std::collections::HashSet::new();
        for x in exchanges.iter().filter(|x| x.request.is_some()) {
            if listed.insert(x.chain.as_str()) {
                chains.push(&x.chain);
            }
        }
        return Err(cannot(if chains.is_empty() {
            "no request bodies: only a capture can become a session".into()
        } else {
            format!(
                "no requests in chain '{wanted}' (the capture has: {})",
                chains.join(", ")
            )
        }));
    }
    // The main chain may hold several conversations with the same system
    // prompt: one starts where a request's first message is not the
    // previous one's. The longest (the latest of equals) is adopted.
    // The first message as its role and text (moving `cache_control`, or
    // a string becoming a block, changes no conversation).
    let first_message = |x: &Exchange| {
        x.request.as_ref().map(|r| {
            r.messages().next().map(|m| {
                let text: Vec<&str> = m.blocks.iter().map(|b| b.text.as_str()).collect();
                (m.role.clone(), text.join("\n"))
            })
        })
    };
    let mut conversations: Vec<Vec<(usize, &Exchange)>> = Vec::new();
    for &(i, x) in &main {
        match conversations.last_mut() {
            Some(c)
                if c.last()
                    .is_some_and(|(_, p)| first_message(p) == first_message(x)) =>
            {
                c.push((i, x))
            }
            _ => conversations.push(vec![(i, x)]),
        }
    }
    let picked = conversations
        .iter()
        .enumerate()
        .max_by_key(|(k, c)| (c.len(), *k))
        .map(|(_, c)| c.clone())
        .unwrap_or_default();
    Ok((picked, conversations.len()))
}

/// `request #3`, `requests #1–#4`, or `3 requests, #1 to #9` when sparse.
fn span_of(picked: &[(usize, &Exchange)]) -> String {
    match (picked.first(), picked.last()) {
        (Some((a, _)), Some((b, _))) if a == b => format!("request #{}", a + 1),
        (Some((a, _)), Some((b, _))) if b - a + 1 == picked.len() => {
            format!("requests #{}–#{}", a + 1, b + 1)
        }
        (Some((a, _)), Some((b, _))) => format!(
            "{}, #{} to #{}",
            crate::plural(picked.len(), "request"),
            a + 1,
            b + 1
        ),
        _ => String::new(),
    }
}

/// The text of a message (its text blocks), if any.
fn text_of(m: &Message) -> Option<String> {
    let t: Vec<&str> = m
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Text)
        .map(|b| b.text.as_str())
        .collect();
    (!t.is_empty()).then(|| t.join("\n"))
}

/// A tool result's answer as text: its content's text blocks, else its
/// content as written.
fn result_of(b: &Block) -> String {
    let Some(content) = b.as_written().and_then(|w| w.get("content")) else {
        return b.text.clone();
    };
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let t: Vec<&str> = parts
                .iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect();
            if t.is_empty() {
                content.to_string()
            } else {
                t.join("\n")
            }
        }
        other => other.to_string(),
    }
}

/// The turns of a conversation: each user text opens one; assistant text,
/// tool uses and their results fill it; a gap of a minute or more between
/// the requests that started two turns is kept.
fn turns_of(chain: &[&Exchange], last: &Request) -> Vec<Value> {
    // The requests that start a turn (their last message is a user's text).
    let starts: Vec<Option<f64>> = chain
        .iter()
        .filter(|x| {
            let m = x.request.as_ref().and_then(|r| r.messages().last());
            m.is_some_and(|m| m.role == Role::User && text_of(m).is_some())
        })
        .map(|x| x.at)
        .collect();
    let mut turns: Vec<Value> = Vec::new();
    let mut pending: Vec<Value> = Vec::new();
    for m in last.messages() {
        if m.role == Role::User {
            // Tool results answer the previous turn's tool uses.
            for b in &m.blocks {
                let BlockKind::ToolResult { tool_use_id, .. } = &b.kind else {
                    continue;
                };
                if let Some(u) = pending
                    .iter_mut()
                    .find(|u| u["id"].as_str() == tool_use_id.as_deref())
                {
                    u["result"] = Value::String(result_of(b));
                }
            }
            if let Some(t) = text_of(m) {
                if let Some(prev) = turns.last_mut()
                    && !pending.is_empty()
                {
                    prev["tool_uses"] = Value::Array(std::mem::take(&mut pending));
                }
                let mut turn = serde_json::json!({"user": t});
                let k = turns.len();
                if k > 0
                    && let (Some(Some(a)), Some(Some(b))) = (starts.get(k - 1), starts.get(k))
                    && b - a >= 60.0
                {
                    turn["gap"] = Value::String(format!("{}s", (b - a).round() as u64));
                }
                turns.push(turn);
            }
        } else {
            if let Some(t) = text_of(m)
                && let Some(prev) = turns.last_mut()
            {
                prev["assistant"] = Value::String(t);
            }
            for b in &m.blocks {
                let BlockKind::ToolUse { id, name } = &b.kind else {
                    continue;
                };
                let input = b
                    .as_written()
                    .and_then(|w| w.get("input"))
                    .cloned()
                    .unwrap_or(Value::Null);
                pending.push(
                    serde_json::json!({"id": id, "name": name, "input": input, "result": ""}),
                );
            }
        }
    }
    if let Some(prev) = turns.last_mut()
        && !pending.is_empty()
    {
        prev["tool_uses"] = Value::Array(pending);
    }
    turns
}
